package org.tapeq.provider;

import diskCacheV111.vehicles.StorageInfo;

/**
 * Where the co-location hint (the dataset a file belongs to) comes from: the file's parent directory, a
 * storage-info key such as the OSM storage group, or nowhere (the daemon then applies its own path rules).
 */
public abstract class ColocationRule {
    static final String PARENT = "parent";
    static final String NONE = "none";
    static final String STORAGE_INFO_PREFIX = "storage-info:";

    private final String text;

    private ColocationRule(String text) {
        this.text = text;
    }

    /** The hint for a file with this path (may be null) and storage info (may be null), or null. */
    public abstract String hint(String path, StorageInfo storageInfo);

    static ColocationRule parse(String key, String value) {
        String v = value.strip();
        if (v.equals(PARENT)) {
            return new ColocationRule(PARENT) {
                @Override
                public String hint(String path, StorageInfo storageInfo) {
                    if (path == null) {
                        return null;
                    }
                    int slash = path.lastIndexOf('/');
                    return slash > 0 ? path.substring(0, slash) : null;
                }
            };
        }
        if (v.equals(NONE)) {
            return new ColocationRule(NONE) {
                @Override
                public String hint(String path, StorageInfo storageInfo) {
                    return null;
                }
            };
        }
        if (v.startsWith(STORAGE_INFO_PREFIX) && v.length() > STORAGE_INFO_PREFIX.length()) {
            String infoKey = v.substring(STORAGE_INFO_PREFIX.length());
            return new ColocationRule(v) {
                @Override
                public String hint(String path, StorageInfo storageInfo) {
                    String hint = storageInfo == null ? null : storageInfo.getKey(infoKey);
                    return hint == null || hint.isBlank() ? null : hint;
                }
            };
        }
        throw new IllegalArgumentException(key + ": must be '" + PARENT + "', '" + NONE + "' or '"
                + STORAGE_INFO_PREFIX + "<key>', was '" + value + "'");
    }

    @Override
    public String toString() {
        return text;
    }
}
