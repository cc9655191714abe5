package io.sluice.pagestore.internal.wal;

import com.sun.nio.file.ExtendedOpenOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Opens the log's segment files for direct I/O ({@code O_DIRECT}) where the file system allows it, else for
 * buffered writes. A direct write returns once the device has the bytes, so what the log acknowledges in
 * {@code LOG_ONLY} survives a crash of the process as a buffered write would (and is past the page cache);
 * the kernel then copies nothing into page cache pages, which is most of a buffered write's CPU. Direct
 * writes must be aligned: {@link WalSegments} writes whole blocks of {@link #directAlignment} bytes.
 */
final class DirectSegmentOpener implements WriteAheadLog.SegmentOpener {

    private static final Logger LOG = LoggerFactory.getLogger(DirectSegmentOpener.class);
    /** A block size above this is not worth the staging (no such file system is expected): buffered writes. */
    static final int MAX_ALIGNMENT = 64 << 10;

    /** Opens a new file for direct writes (a test stands in for a file system that refuses them). */
    @FunctionalInterface
    interface DirectOpen {
        FileChannel open(Path file) throws IOException;
    }

    private final DirectOpen directOpen;
    /** The last file's alignment; 0 once direct I/O was refused (every later segment is buffered too). */
    private int alignment = -1;

    DirectSegmentOpener() {
        this(file -> FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                ExtendedOpenOption.DIRECT));
    }

    DirectSegmentOpener(DirectOpen directOpen) {
        this.directOpen = directOpen;
    }

    @Override
    public FileChannel open(Path file) throws IOException {
        if (alignment != 0) {
            FileChannel channel = null;
            try {
                channel = directOpen.open(file);
                long blockSize = Files.getFileStore(file).getBlockSize();
                if (blockSize > 0 && blockSize <= MAX_ALIGNMENT && Integer.bitCount((int) blockSize) == 1) {
                    alignment = (int) blockSize;
                    return channel;
                }
                channel.close();
                LOG.info("the write-ahead log in {} writes through the page cache: block size {}", file.getParent(),
                        blockSize);
            } catch (FileAlreadyExistsException e) {
                throw e;
            } catch (IOException | UnsupportedOperationException e) {
                if (channel != null) {
                    channel.close();
                }
                LOG.info("the write-ahead log in {} writes through the page cache: direct I/O refused ({})",
                        file.getParent(), e.toString());
            }
            alignment = 0;
            // a refused direct open may have created the file (the file system checks O_DIRECT after creating it)
            return FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING);
        }
        return FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    }

    @Override
    public int directAlignment() {
        return Math.max(alignment, 0);
    }
}
