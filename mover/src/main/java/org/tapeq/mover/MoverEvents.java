package org.tapeq.mover;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Told when a mover stops answering and when it answers again (any thread); the daemon takes its drives out of
 *  service and puts them back. */
public interface MoverEvents {

    MoverEvents NONE = new MoverEvents() {
        @Override
        public void unreachable(String mover, List<String> drives, String reason) {
        }

        @Override
        public void reachable(String mover, List<String> drives, Map<String, Optional<String>> holding) {
        }
    };

    /** {@code reason} reads "mover NAME unreachable since TIME: why" (why: the call's status, or why it is refused). */
    void unreachable(String mover, List<String> drives, String reason);

    /**
     * The mover answers again; {@code holding} gives, for each drive it reported, the cartridge in it as the mover
     * sees it (empty: none); a drive not in it was not asked.
     */
    void reachable(String mover, List<String> drives, Map<String, Optional<String>> holding);
}
