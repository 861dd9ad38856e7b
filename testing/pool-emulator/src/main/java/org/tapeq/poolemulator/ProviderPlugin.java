package org.tapeq.poolemulator;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.ServiceLoader;

import org.dcache.pool.nearline.spi.NearlineStorage;
import org.dcache.pool.nearline.spi.NearlineStorageProvider;

/** The tapeq provider plugin as dCache loads it: through the SPI's service registry. Used by the demo and loadtest. */
public final class ProviderPlugin {

    private ProviderPlugin() {
    }

    /** A started tapeq nearline storage for {@code hsmType:hsmName} on the request directory {@code endit}. */
    public static NearlineStorage load(String hsmType, String hsmName, Path endit) throws IOException {
        for (NearlineStorageProvider p : ServiceLoader.load(NearlineStorageProvider.class)) {
            if ("tapeq".equals(p.getName())) {
                NearlineStorage storage = p.createNearlineStorage(hsmType, hsmName);
                storage.configure(Map.of("directory", endit.toString()));
                storage.start();
                return storage;
            }
        }
        throw new IOException("the tapeq provider plugin is not on the class path");
    }
}
