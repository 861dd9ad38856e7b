package org.dcache.vehicles;

import diskCacheV111.util.PnfsId;
import diskCacheV111.vehicles.StorageInfo;
import java.io.Serializable;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;
import org.dcache.namespace.FileAttribute;
import org.dcache.util.Checksum;

/**
 * Declaration compatible with dCache's {@code FileAttributes} (dcache-vehicles), limited to the attributes
 * tapeq uses. As in dCache, a getter of an attribute that was never set throws
 * {@link IllegalStateException}.
 */
public class FileAttributes implements Serializable {
    private static final long serialVersionUID = 1L;

    private final Set<FileAttribute> defined = EnumSet.noneOf(FileAttribute.class);
    private PnfsId pnfsId;
    private long size;
    private String storageClass;
    private StorageInfo storageInfo;
    private Set<Checksum> checksums;
    private String hsm;

    public boolean isDefined(FileAttribute attribute) {
        return defined.contains(attribute);
    }

    private void guard(FileAttribute attribute) {
        if (!defined.contains(attribute)) {
            throw new IllegalStateException("Attribute is not defined: " + attribute);
        }
    }

    public PnfsId getPnfsId() {
        guard(FileAttribute.PNFSID);
        return pnfsId;
    }

    public void setPnfsId(PnfsId pnfsId) {
        defined.add(FileAttribute.PNFSID);
        this.pnfsId = pnfsId;
    }

    public void setPnfsId(String pnfsId) {
        setPnfsId(new PnfsId(pnfsId));
    }

    public long getSize() {
        guard(FileAttribute.SIZE);
        return size;
    }

    public void setSize(long size) {
        defined.add(FileAttribute.SIZE);
        this.size = size;
    }

    public String getStorageClass() {
        guard(FileAttribute.STORAGECLASS);
        return storageClass;
    }

    public void setStorageClass(String storageClass) {
        defined.add(FileAttribute.STORAGECLASS);
        this.storageClass = storageClass;
    }

    public StorageInfo getStorageInfo() {
        guard(FileAttribute.STORAGEINFO);
        return storageInfo;
    }

    public void setStorageInfo(StorageInfo storageInfo) {
        defined.add(FileAttribute.STORAGEINFO);
        this.storageInfo = storageInfo;
    }

    public Set<Checksum> getChecksums() {
        guard(FileAttribute.CHECKSUM);
        return checksums;
    }

    public void setChecksums(Collection<Checksum> checksums) {
        defined.add(FileAttribute.CHECKSUM);
        this.checksums = new HashSet<>(checksums);
    }

    public String getHsm() {
        guard(FileAttribute.HSM);
        return hsm;
    }

    public void setHsm(String hsm) {
        defined.add(FileAttribute.HSM);
        this.hsm = hsm;
    }
}
