package org.tapeq.it;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaFieldAccess;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The rules of docs/architecture.md, checked on the compiled production classes of every module: no package
 * cycle, the daemon carries no tool, the engine works against interfaces only, and the engine's queues and
 * drives keep their state to themselves.
 */
class ArchitectureTest {

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                // the provider's jar carries its relocated copy of Jackson: not tapeq's code
                .withImportOption(location -> !location.contains("/org/tapeq/provider/shaded/"))
                .importPackages("org.tapeq");
        // Every module this test sees must have been imported, or the rules below would pass on nothing.
        for (String pkg : new String[] {"org.tapeq.protocol", "org.tapeq.provider", "org.tapeq.poolemulator",
                "org.tapeq.scheduler.engine", "org.tapeq.scheduler.tape.sim", "org.tapeq.scheduler.tape.scsi",
                "org.tapeq.scheduler.catalog.jdbc", "org.tapeq.scheduler.format", "org.tapeq.daemon.bridge",
                "org.tapeq.simulator", "org.tapeq.loadtest", "org.tapeq.workload", "org.tapeq.tools"}) {
            if (!classes.containPackage(pkg)) {
                throw new AssertionError("no production class of package " + pkg + " on the test class path");
            }
        }
    }

    @Test
    void packages_haveNoCycle() {
        slices().matching("org.tapeq.(**)").should().beFreeOfCycles().check(classes);
    }

    @Test
    void daemon_dependsOnNoTool() {
        noClasses().that().resideInAPackage("org.tapeq.daemon..")
                .should().dependOnClassesThat().resideInAnyPackage("org.tapeq.simulator..", "org.tapeq.loadtest..",
                        "org.tapeq.tools..", "org.tapeq.workload..", "org.tapeq.poolemulator..",
                        "org.tapeq.provider..", "org.tapeq.charts..", "org.knowm..", "org.apache.pdfbox..")
                .check(classes);
    }

    @Test
    void engine_worksAgainstInterfacesOnly() {
        noClasses().that().resideInAnyPackage("org.tapeq.scheduler.engine..", "org.tapeq.scheduler.policy..")
                .should().dependOnClassesThat().resideInAnyPackage("org.tapeq.scheduler.tape.sim..",
                        "org.tapeq.scheduler.tape.scsi..", "org.tapeq.scheduler.catalog.jdbc..",
                        "org.tapeq.daemon..", "java.sql..")
                .check(classes);
    }

    /** The simulated library is the truth a scheduler is graded against: it shares no code with its estimate. */
    @Test
    void simulatedLibrary_neverUsesTheSchedulersEstimate() {
        noClasses().that().resideInAPackage("org.tapeq.scheduler.tape.sim..")
                .should().dependOnClassesThat().resideInAPackage("org.tapeq.scheduler.policy..")
                .check(classes);
    }

    @Test
    void policies_doNotReachIntoTheEngine() {
        noClasses().that().resideInAPackage("org.tapeq.scheduler.policy..")
                .should().dependOnClassesThat().resideInAPackage("org.tapeq.scheduler.engine..")
                .check(classes);
    }

    @Test
    void provider_usesOnlyTheProtocolOfTapeq() {
        noClasses().that().resideInAPackage("org.tapeq.provider..")
                .should().dependOnClassesThat().resideInAnyPackage("org.tapeq.scheduler..", "org.tapeq.daemon..",
                        "org.tapeq.config..", "org.tapeq.poolemulator..")
                .check(classes);
    }

    @Test
    void queueFields_areWrittenOnlyInTheQueuePackage() {
        noClasses().that().resideOutsideOfPackage("org.tapeq.scheduler.engine.queue..")
                .should().setFieldWhere(ownerIn("org.tapeq.scheduler.engine.queue"))
                .check(classes);
    }

    @Test
    void driveFields_areTouchedOnlyInTheDrivePackage() {
        noClasses().that().resideOutsideOfPackage("org.tapeq.scheduler.engine.drive..")
                .should().accessFieldWhere(ownerIn("org.tapeq.scheduler.engine.drive"))
                .check(classes);
    }

    /** An instance field of a class in the package (constants such as enum values are not state). */
    private static DescribedPredicate<JavaFieldAccess> ownerIn(String pkg) {
        return DescribedPredicate.describe("an instance field of a class in " + pkg,
                access -> access.getTargetOwner().getPackageName().startsWith(pkg)
                        && access.getTarget().resolveMember()
                                .map(f -> !f.getModifiers().contains(JavaModifier.STATIC)).orElse(true));
    }
}
