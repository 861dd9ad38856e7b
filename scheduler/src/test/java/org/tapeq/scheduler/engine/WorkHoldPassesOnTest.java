package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.tape.ForwardingLibrary;
import org.tapeq.scheduler.tape.TapeLibrary;

/**
 * Every library decorator passes every call on: {@link ForwardingLibrary} declares every method of
 * {@link TapeLibrary} (a default method it did not override would answer for the real library: no wrap ends, no
 * recommended order, alerts swallowed, without a word), and the hold's library wrapper is one.
 */
class WorkHoldPassesOnTest {

    @Test
    void everyLibraryMethod_isPassedOn() {
        List<String> missing = new ArrayList<>();
        for (Method m : TapeLibrary.class.getMethods()) {
            if (Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            try {
                ForwardingLibrary.class.getDeclaredMethod(m.getName(), m.getParameterTypes());
            } catch (NoSuchMethodException e) {
                missing.add(m.getName());
            }
        }
        assertTrue(missing.isEmpty(), "ForwardingLibrary does not pass on " + missing);
        assertInstanceOf(ForwardingLibrary.class, new WorkHold().library(new TapeLibraryStub()));
    }

    /** A library that is never called. */
    private static final class TapeLibraryStub extends ForwardingLibrary {
        TapeLibraryStub() {
            super(null);
        }
    }
}
