package diskCacheV111.vehicles;

import java.io.Serializable;
import java.net.URI;
import java.util.List;
import java.util.Map;

/**
 * Declaration compatible with dCache's {@code StorageInfo} interface (dcache-vehicles), limited to the
 * methods tapeq uses.
 */
public interface StorageInfo extends Serializable, Cloneable {
    List<URI> locations();

    String getKey(String key);

    String setKey(String key, String value);

    Map<String, String> getMap();

    boolean isStored();

    @Deprecated
    String getHsm();

    @Deprecated
    String getStorageClass();
}
