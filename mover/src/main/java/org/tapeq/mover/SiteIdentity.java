package org.tapeq.mover;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.Set;

import org.tapeq.mover.proto.Fence;

/**
 * The site a scheduler or a mover belongs to, and the site's shared token (empty: none). A mover serves only a
 * scheduler of its own site that shows the same token; a scheduler uses only movers that report its site. The
 * token guards against a stray or misconfigured scheduler, not against an attacker who can read the network:
 * it crosses the channel in the clear (docs/operations.md, "Site identity").
 *
 * @param site  the site's name (the catalog's {@code catalog.site} on the scheduler, {@code mover.site} on a mover)
 * @param token the shared token, or empty
 */
public record SiteIdentity(String site, String token) {

    public SiteIdentity {
        if (site == null || site.isEmpty()) {
            throw new IllegalArgumentException("a site name is required");
        }
        token = token == null ? "" : token;
    }

    /** A site without a token. */
    public static SiteIdentity of(String site) {
        return new SiteIdentity(site, "");
    }

    /**
     * The token kept in {@code file} (its first line, blanks stripped); a file that cannot be read, is empty, or
     * (on a POSIX file system) may be read or written by group or others fails, naming it.
     */
    public static String readToken(Path file) throws IOException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IOException(file + ": cannot read the site's mover token: " + e.getMessage(), e);
        }
        if (Files.getFileStore(file).supportsFileAttributeView(PosixFileAttributeView.class)) {
            Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file);
            if (mode.stream().anyMatch(p -> p.name().startsWith("GROUP_") || p.name().startsWith("OTHERS_"))) {
                throw new IOException(file + ": the site's mover token file has mode "
                        + PosixFilePermissions.toString(mode) + ", open to group or others: make it readable by "
                        + "its owner only (chmod 600)");
            }
        }
        String token = text.lines().findFirst().orElse("").strip();
        if (token.isEmpty()) {
            throw new IOException(file + ": the site's mover token file is empty");
        }
        return token;
    }

    /** The fence of a command from this site. */
    Fence.Builder fence() {
        return Fence.newBuilder().setSite(site).setToken(token);
    }

    /** Why mover {@code mover} of this site refuses {@code what} sent with {@code fence}, or null when it may run. */
    String refusal(String mover, Fence fence, String what) {
        if (!site.equals(fence.getSite())) {
            return "mover " + mover + " of site '" + site + "' refuses " + what + " from scheduler '"
                    + fence.getScheduler() + "' of site '" + fence.getSite() + "': another site";
        }
        if (!MessageDigest.isEqual(token.getBytes(StandardCharsets.UTF_8),
                fence.getToken().getBytes(StandardCharsets.UTF_8))) {
            return "mover " + mover + " of site '" + site + "' refuses " + what + " from scheduler '"
                    + fence.getScheduler() + "': " + (fence.getToken().isEmpty() ? "it shows no token"
                    : "its token is not the site's") + " (movers.tokenFile and mover.tokenFile must hold the same)";
        }
        return null;
    }
}
