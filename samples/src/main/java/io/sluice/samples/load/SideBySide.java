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

    /** The remote results, every run's mode marked. */
    static List<ModeRuns> remote(List<ModeRuns> results) {
        List<ModeRuns> marked = new ArrayList<>(results.size());
        for (ModeRuns m : results) {
            marked.add(new ModeRuns(m.runs().stream().map(r -> r.withMode(r.mode() + REMOTE)).toList()));
        }
        return marked;
    }

    /** One line per mode that ran both ways and verified: remote median entries/s as a share of embedded. */
    static List<String> ratios(List<ModeRuns> embedded, List<ModeRuns> remote) {
        List<String> lines = new ArrayList<>();
        for (ModeRuns r : remote) {
            String mode = r.mode().substring(0, r.mode().length() - REMOTE.length());
            for (ModeRuns e : embedded) {
                double remoteRate = r.entriesPerSecond().median();
                double embeddedRate = e.entriesPerSecond().median();
                if (e.mode().equals(mode) && e.values().equals(r.values()) && e.verified() && r.verified()
                        && embeddedRate > 0) {
                    lines.add(String.format(Locale.ROOT, "remote/embedded %s %s: %.2fx (%,.0f vs %,.0f entries/s;"
                                    + " client and node share this machine's cores)", mode, r.values(),
                            remoteRate / embeddedRate, remoteRate, embeddedRate));
                }
            }
        }
        return lines;
    }
}
