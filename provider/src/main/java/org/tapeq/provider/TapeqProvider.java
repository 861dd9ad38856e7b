package org.tapeq.provider;

import org.dcache.pool.nearline.spi.NearlineStorage;
import org.dcache.pool.nearline.spi.NearlineStorageProvider;

/** The provider dCache finds through {@link java.util.ServiceLoader}; its name is {@value #NAME}. */
public final class TapeqProvider implements NearlineStorageProvider {
    public static final String NAME = "tapeq";

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public String getDescription() {
        return "tapeq: tape through an ENDIT-compatible request directory (flush, stage, remove)";
    }

    @Override
    public NearlineStorage createNearlineStorage(String type, String name) {
        return new TapeqNearlineStorage(type, name);
    }
}
