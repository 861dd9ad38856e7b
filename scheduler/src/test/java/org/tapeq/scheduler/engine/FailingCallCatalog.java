package org.tapeq.scheduler.engine;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.HashSet;
import java.util.Set;

import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.catalog.CatalogException;

/**
 * A catalog whose calls of the methods a test names fail ({@link CatalogException}, as a database that refuses the
 * write), every other call passing to the real one. Switched on and off by the test, on the loop's thread.
 */
final class FailingCallCatalog {

    private final Set<String> failing = new HashSet<>();

    /** The catalog the scheduler sees. */
    Catalog wrap(Catalog delegate) {
        return (Catalog) Proxy.newProxyInstance(Catalog.class.getClassLoader(), new Class<?>[] {Catalog.class},
                (proxy, method, args) -> {
                    if (failing.contains(method.getName())) {
                        throw new CatalogException("simulated failure of " + method.getName());
                    }
                    try {
                        return method.invoke(delegate, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /** From now on, calls of {@code method} fail. */
    void fail(String method) {
        failing.add(method);
    }
}
