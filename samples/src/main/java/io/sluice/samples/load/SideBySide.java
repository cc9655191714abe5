package io.sluice.samples.load;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Embedded and remote results of the same modes, side by side (sluice-load --start-node). */
final class SideBySide {

    /** Appended to a mode's name in the rows of the remote node. */
    static final String REMOTE = " (remote)";

    private SideBySide() {
    }

    /** The remote results, their modes marked. */
    static List<ModeResult> remote(List<ModeResult> results) {
        List<ModeResult> marked = new ArrayList<>(results.size());
        for (ModeResult r : results) {
            marked.add(r.withMode(r.mode() + REMOTE));
        }
        return marked;
    }

    /** One line per mode that ran both ways and verified: remote entries/s as a share of embedded. */
    static List<String> ratios(List<ModeResult> embedded, List<ModeResult> remote) {
        List<String> lines = new ArrayList<>();
        for (ModeResult r : remote) {
            String mode = r.mode().substring(0, r.mode().length() - REMOTE.length());
            for (ModeResult e : embedded) {
                if (e.mode().equals(mode) && e.values().equals(r.values()) && e.verified() && r.verified()
                        && e.entriesPerSecond() > 0) {
                    lines.add(String.format(Locale.ROOT, "remote/embedded %s %s: %.2fx (%,.0f vs %,.0f entries/s;"
                                    + " client and node share this machine's cores)", mode, r.values(),
                            r.entriesPerSecond() / e.entriesPerSecond(), r.entriesPerSecond(), e.entriesPerSecond()));
                }
            }
        }
        return lines;
    }
}
