package io.sluice.node.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * The partition files of a persistent node's moves directory that its log still needs: an adopted file is named by
 * an ADOPT record, which a restart replays, until a checkpoint whose mark is past that record has committed (the
 * checkpoint then holds the partition, and the replay starts after the record). Then the file is deleted. At start,
 * after recovery, every file no replayed record named is deleted (a transfer that did not finish, a file renamed
 * but never logged, one whose checkpoint committed just before a crash). Thread-safe.
 */
final class AdoptedFiles {

    private static final Logger LOG = LoggerFactory.getLogger(AdoptedFiles.class);

    private final Path directory;
    /** File name to the log position after its ADOPT record (0: replayed at start, before any checkpoint). */
    private final Map<String, Long> needed = new HashMap<>();

    AdoptedFiles(Path directory) {
        this.directory = directory;
    }

    /** The moves directory. */
    Path directory() {
        return directory;
    }

    /** The replay met an ADOPT record naming the file: it is needed until the next checkpoint commits. */
    synchronized void replayed(String name) {
        needed.put(name, 0L);
    }

    /** The file was adopted and its ADOPT record ends at or before {@code position}. */
    synchronized void adopted(String name, long position) {
        needed.put(name, position);
    }

    /** Whether the log still needs the file (tests). */
    synchronized boolean isNeeded(String name) {
        return needed.containsKey(name);
    }

    /** A checkpoint with this mark committed: the files whose records are before it go. */
    void committed(long mark) {
        synchronized (this) {
            for (Iterator<Map.Entry<String, Long>> it = needed.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<String, Long> e = it.next();
                if (e.getValue() <= mark) {
                    delete(directory.resolve(e.getKey()));
                    it.remove();
                }
            }
        }
    }

    /** At start, after recovery: deletes every file of the directory that no replayed record named. */
    synchronized void deleteUnneeded() throws IOException {
        Files.createDirectories(directory);
        try (DirectoryStream<Path> all = Files.newDirectoryStream(directory)) {
            for (Path f : all) {
                if (!needed.containsKey(f.getFileName().toString())) {
                    LOG.info("deleting {}: no log record needs it (an unfinished transfer, or a partition a"
                            + " checkpoint holds)", f);
                    delete(f);
                }
            }
        }
    }

    static void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.warn("cannot delete {}: {}", file, e.toString());
        }
    }
}
