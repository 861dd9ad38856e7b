package org.tapeq.mover;

import java.util.List;

/**
 * One mover as the scheduler's configuration names it: where it listens and the drives it owns.
 *
 * @param name   the mover's name (in logs and drive reasons)
 * @param host   host name or address it listens on
 * @param port   its gRPC port
 * @param drives the drives it owns, each owned by no other mover
 */
public record MoverEndpoint(String name, String host, int port, List<String> drives) {
    public MoverEndpoint {
        drives = List.copyOf(drives);
    }
}
