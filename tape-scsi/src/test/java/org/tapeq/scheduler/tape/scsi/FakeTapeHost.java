package org.tapeq.scheduler.tape.scsi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import org.tapeq.scheduler.model.DriveType;

/**
 * A fake tape host: {@code mtx}, {@code mt}, {@code sg_logs}, {@code sg_read_attr}, {@code sg_raw} and {@code sg_inq}
 * are scripts first on the command prefix's PATH, keeping a one-drive, three-slot library's state in files;
 * {@code sg_raw} answers with the outputs built from the SCSI reference ({@code spec/}). Each {@code mtx} and
 * {@code mt} command is logged with the name of the library that ran it, so two libraries on one fake host stand
 * for two tape servers sharing one changer.
 */
final class FakeTapeHost {

    /** The cartridges in slots 1, 2 and 3 at the start. */
    static final String X = "X00001L8";
    static final String Y = "Y00001L8";
    static final String Z = "Z00001L8";

    private FakeTapeHost() {
    }

    /**
     * Writes the fake host into {@code host} (its drive answers the INQUIRY in {@code host/inquiry}, mhVTL's LTO-8
     * unless replaced) and returns the settings of a library on it whose commands are logged as {@code name}.
     */
    static ScsiSettings install(Path host, DriveType configured, String name) throws IOException {
        Path bin = Files.createDirectories(host.resolve("bin"));
        Path s = Files.createDirectories(host.resolve("state"));
        Files.writeString(s.resolve("slot1"), X);
        Files.writeString(s.resolve("slot2"), Y);
        Files.writeString(s.resolve("slot3"), Z);
        String none = Recorded.text("mhvtl/sg_logs-tapealert-none.txt");
        Files.writeString(host.resolve("alerts-none"), none);
        // flag 0x04 (media) alone set
        String media = none.replace("00 04 c0 01 00  00 05", "00 04 c0 01 01  00 05");
        if (media.equals(none)) {
            throw new IllegalStateException("the TapeAlert dump changed; set flag 0x04 another way");
        }
        Files.writeString(host.resolve("alerts-media"), media);
        Files.writeString(host.resolve("mt-tell.txt"), Recorded.text("lab/mt-tell.txt"));
        script(bin.resolve("mtx"), "S=" + s + "\n"
                + "echo \"$TAPEQ_HOST mtx $3\" >> $S/commands\n"
                + "case \"$3\" in\n"
                + "  status)\n"
                + "    echo '  Storage Changer /dev/sch0:1 Drives, 3 Slots ( 0 Import/Export )'\n"
                + "    if [ -s $S/drive ]; then echo \"Data Transfer Element 0:Full (Storage Element $(cat $S/from)"
                + " Loaded):VolumeTag = $(cat $S/drive)\"; else echo 'Data Transfer Element 0:Empty'; fi\n"
                + "    for n in 1 2 3; do if [ -s $S/slot$n ]; then echo \"      Storage Element $n:Full"
                + " :VolumeTag=$(cat $S/slot$n)\"; else echo \"      Storage Element $n:Empty:VolumeTag=\"; fi; done;;\n"
                + "  load) mv $S/slot$4 $S/drive; echo $4 > $S/from; rm -f $S/ejected;;\n"
                + "  unload) mv $S/drive $S/slot$4; rm -f $S/from $S/ejected;;\n"
                + "  *) exit 2;;\n"
                + "esac\n");
        script(bin.resolve("mt"), "S=" + s + "\n"
                + "echo \"$TAPEQ_HOST mt $3\" >> $S/commands\n"
                + "case \"$3\" in\n"
                + "  status)\n"
                + "    if [ -s $S/drive ] && [ ! -e $S/ejected ]; then printf 'File number=0, block number=0,"
                + " partition=0.\\nGeneral status bits on (41010000):\\n BOT ONLINE IM_REP_EN\\n'\n"
                + "    else printf 'File number=-1, block number=-1, partition=0.\\nGeneral status bits on"
                + " (50000):\\n DR_OPEN IM_REP_EN\\n'; fi;;\n"
                + "  offline) touch $S/ejected;;\n"
                + "  setblk) ;;\n"
                + "  eod) echo eod >> $S/mt.log;;\n"
                // the recorded answer of the tgt lab's drive, at the block in state/tell (1234 if none)
                + "  tell) echo tell >> $S/mt.log; sed \"s/1234/$(cat $S/tell 2>/dev/null || echo 1234)/\" "
                + host.resolve("mt-tell.txt") + ";;\n"
                + "  weof) echo \"weof $4\" >> $S/mt.log; if [ -e $S/failweof ]; then"
                + " echo \"$2: Input/output error\" >&2; exit 1; fi;;\n"
                + "  rewind) if [ -e $S/failrewind ]; then rm $S/failrewind; touch $S/media;"
                + " echo \"$2: Input/output error\" >&2; exit 1; fi;;\n"
                + "  *) exit 2;;\n"
                + "esac\n");
        // reading clears the flags, as on a drive
        script(bin.resolve("sg_logs"), "S=" + s + "\n"
                + "if [ -e $S/media ]; then rm $S/media; cat " + host.resolve("alerts-media") + "; else cat "
                + host.resolve("alerts-none") + "; fi\n");
        script(bin.resolve("sg_read_attr"), "echo 'no cartridge memory' >&2; exit 5\n");
        // READ END OF WRAP POSITION and the recommended access order: a drive without them (the labs) unless
        // state/rao says otherwise; state/refuse: every command is refused with its contents (another ILLEGAL
        // REQUEST, sg_raw's exit status 5); state/receive-fails: RECEIVE of the list fails with its contents
        Files.writeString(host.resolve("reowp.txt"), Recorded.text("spec/sg_raw-reowp-lto9.txt"));
        Files.writeString(host.resolve("limits.txt"), Recorded.text("spec/sg_raw-rrao-limits.txt"));
        Files.writeString(host.resolve("list.txt"), Recorded.text("spec/sg_raw-rrao-list.txt"));
        Files.writeString(host.resolve("illegal.txt"), Recorded.text("spec/sg_raw-reowp-illegal-request.txt"));
        script(bin.resolve("sg_raw"), "S=" + s + "\nH=" + host + "\n"
                + "echo \"$1 $4 $5\" >> $S/sg_raw.log\n"
                + "if [ -e $S/refuse ]; then cat $S/refuse >&2; exit 5; fi\n"
                + "if [ ! -e $S/rao ]; then cat $H/illegal.txt >&2; exit 9; fi\n"
                + "case \"$1 $4 $5\" in\n"
                + "  '-r a3 1f') cat $H/reowp.txt;;\n"
                + "  '-r a3 9d') cat $H/limits.txt;;\n"
                + "  '-s a4 1d') cat > /dev/null;;\n"
                + "  '-r a3 1d') if [ -e $S/receive-fails ]; then cat $S/receive-fails >&2; exit 3; fi;"
                + " cat $H/list.txt;;\n"
                + "  *) exit 2;;\n"
                + "esac\n");
        Files.writeString(host.resolve("inquiry"), Recorded.text("mhvtl/sg_inq-ult3580-td8.txt"));
        script(bin.resolve("sg_inq"), "echo \"$1\" >> " + s.resolve("inquired") + "\n"
                + "cat " + host.resolve("inquiry") + "\n");
        return settings(host, configured, name);
    }

    /**
     * The settings of another library on the same fake host (another tape server), its commands logged as
     * {@code name}.
     */
    static ScsiSettings settings(Path host, DriveType configured, String name) {
        return new ScsiSettings("/dev/sch0", List.of(new ScsiSettings.Drive("d0", "/dev/nst0", 0, configured)),
                256 * 1024, List.of("env", "PATH=" + host.resolve("bin") + ":" + System.getenv("PATH"),
                "TAPEQ_HOST=" + name, "sh", "-c"), 10_000, 10_000, 10_000, 1 << 20);
    }

    /** The robot and drive commands run so far, each as {@code "NAME mtx|mt VERB"}. */
    static List<String> commands(Path host) throws IOException {
        Path log = host.resolve("state/commands");
        return Files.exists(log) ? Files.readAllLines(log) : List.of();
    }

    private static void script(Path file, String body) throws IOException {
        Files.writeString(file, "#!/bin/sh\n" + body);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

}
