package org.tapeq.poolemulator;

import diskCacheV111.vehicles.StorageInfo;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Storage info as a pool has it: HSM, storage class, key-value map (e.g. {@code path}) and tape locations. */
public final class EmulatedStorageInfo implements StorageInfo {
    private static final long serialVersionUID = 1L;

    private final String hsm;
    private final String storageClass;
    private final Map<String, String> map = new HashMap<>();
    private final List<URI> locations = new ArrayList<>();

    public EmulatedStorageInfo(String hsm, String storageClass) {
        this.hsm = hsm;
        this.storageClass = storageClass;
    }

    @Override
    public synchronized List<URI> locations() {
        return Collections.unmodifiableList(new ArrayList<>(locations));
    }

    public synchronized void addLocation(URI location) {
        locations.add(location);
    }

    @Override
    public synchronized String getKey(String key) {
        return map.get(key);
    }

    @Override
    public synchronized String setKey(String key, String value) {
        return value == null ? map.remove(key) : map.put(key, value);
    }

    @Override
    public synchronized Map<String, String> getMap() {
        return new HashMap<>(map);
    }

    @Override
    public synchronized boolean isStored() {
        return !locations.isEmpty();
    }

    @Override
    @Deprecated
    public String getHsm() {
        return hsm;
    }

    @Override
    @Deprecated
    public String getStorageClass() {
        return storageClass;
    }
}
