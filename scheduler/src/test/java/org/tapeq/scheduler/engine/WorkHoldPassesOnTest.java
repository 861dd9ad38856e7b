package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.tape.TapeLibrary;

/**
 * The hold's library wrapper declares every method of {@link TapeLibrary}: a default method it did not override
 * would answer for the real library (no wrap ends, no recommended order, alerts swallowed) without a word.
 */
class WorkHoldPassesOnTest {

    @Test
    void everyLibraryMethod_isPassedOn() {
        Class<?> wrapper = new WorkHold().library(new ForwardingLibrary(null)).getClass();
        List<String> missing = new ArrayList<>();
        for (Method m : TapeLibrary.class.getMethods()) {
            if (Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            try {
                wrapper.getDeclaredMethod(m.getName(), m.getParameterTypes());
            } catch (NoSuchMethodException e) {
                missing.add(m.getName());
            }
        }
        assertTrue(missing.isEmpty(), "WorkHold does not pass on " + missing);
    }
}
