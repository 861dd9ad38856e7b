package org.tapeq.scheduler.policy;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/** The named registry of mount policies, so the simulator can run each on the same workload. */
public final class MountPolicies {

    private static final Map<String, Function<MountCriteria, MountPolicy>> REGISTRY = new LinkedHashMap<>();

    static {
        REGISTRY.put("tapeq", TapeqMountPolicy::new);
        REGISTRY.put("fifo", c -> new FifoMountPolicy());
        REGISTRY.put("endit", c -> new EnditMountPolicy());
        REGISTRY.put("cta", c -> new CtaMountPolicy());
        REGISTRY.put("dcache", c -> new DcacheMountPolicy());
    }

    private MountPolicies() {
    }

    public static Set<String> names() {
        return REGISTRY.keySet();
    }

    /** The policy of this name, configured with {@code config}; an unknown name is an error naming the choices. */
    public static MountPolicy create(String name, MountCriteria config) {
        Function<MountCriteria, MountPolicy> factory = REGISTRY.get(name);
        if (factory == null) {
            throw new IllegalArgumentException("policy: unknown policy '" + name + "', known: " + names());
        }
        return factory.apply(config);
    }
}
