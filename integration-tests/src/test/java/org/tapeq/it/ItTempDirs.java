package org.tapeq.it;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.extension.AnnotatedElementContext;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.io.TempDirFactory;

/**
 * Every {@code @TempDir} of these tests (set in junit-platform.properties): a directory named
 * {@code tapeq-it-*} rather than JUnit's {@code junit-*}. A machine that runs other builds may sweep
 * {@code /tmp/junit-*}; once such a sweep removed a test's request directory while its flushes were in flight,
 * and the test failed in a way that looked like flushes acknowledged without a catalog record.
 */
public final class ItTempDirs implements TempDirFactory {

    @Override
    public Path createTempDirectory(AnnotatedElementContext elementContext, ExtensionContext extensionContext)
            throws Exception {
        return Files.createTempDirectory("tapeq-it-");
    }
}
