package org.dcache.pool.nearline.spi;

/**
 * Declaration compatible with dCache's {@code NearlineStorageProvider} (dcache-nearline-spi); a factory
 * found through {@link java.util.ServiceLoader}.
 */
public interface NearlineStorageProvider {
    String getName();

    String getDescription();

    NearlineStorage createNearlineStorage(String type, String name);
}
