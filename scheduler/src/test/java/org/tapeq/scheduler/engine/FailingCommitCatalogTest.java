package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.catalog.Catalog;

/** The test catalog that fails commits passes the catalog's checks and lease renewal on to the real one. */
class FailingCommitCatalogTest {

    @Test
    void checksAndLeaseRenewal_passedOnToTheCatalogBehind() {
        List<String> calls = new ArrayList<>();
        Catalog behind = (Catalog) Proxy.newProxyInstance(Catalog.class.getClassLoader(),
                new Class<?>[] {Catalog.class}, (proxy, method, args) -> {
                    calls.add(method.getName() + (args == null ? "" : List.of(args)));
                    return null;
                });
        Catalog failing = new FailingCommitCatalog(behind);

        failing.check();
        failing.checkWritable();
        failing.renewLease(42);

        assertEquals(List.of("check", "checkWritable", "renewLease[42]"), calls);
    }
}
