package io.sluice.pagestore.internal.checkpoint;

import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The last complete checkpoint (layout in {@link CheckpointFormat}): its number, the log position replay
 * starts from, the type registry, and each cache with the file of each partition.
 *
 * @param number      the checkpoint's number (from 1)
 * @param mark        the log position replay starts from
 * @param nextCacheId the id the next cache created gets
 * @param types       the binary type registry's export
 * @param caches      the caches at the checkpoint
 */
public record Manifest(long number, long mark, int nextCacheId, byte[] types, List<CacheFiles> caches) {

    /**
     * A cache in a checkpoint.
     *
     * @param files for each partition, the number of the checkpoint whose file holds it (0: empty, no file)
     * @param store   the cache's store attachment (CacheStoreWire layout), or null if it has none
     * @param options the cache's options (CacheOptionsWire layout), or null if they are the defaults
     */
    public record CacheFiles(int id, String name, long[] files, byte[] store, byte[] options) {

        /** A cache with the default options. */
        public CacheFiles(int id, String name, long[] files, byte[] store) {
            this(id, name, files, store, null);
        }
    }

    /** The manifest in the directory, or null if there is none. @throws CheckpointCorruptedException if damaged */
    public static Manifest read(Path directory) throws IOException {
        Path file = directory.resolve(CheckpointFormat.MANIFEST);
        if (!Files.exists(file)) {
            return null;
        }
        byte[] data = Files.readAllBytes(file);
        if (data.length < 40 || ByteBuffer.wrap(data).getInt(data.length - 4)
                != CheckpointFormat.crc(data, 0, data.length - 4)) {
            throw new CheckpointCorruptedException(file + " position " + Math.max(0, data.length - 4) + ": the manifest ("
                    + data.length + " bytes) fails its CRC32C check; recovery stops rather than guess what it held");
        }
        ByteBuffer in = ByteBuffer.wrap(data, 0, data.length - 4);
        try {
            long magic = in.getLong();
            int version = in.getInt();
            if (magic != CheckpointFormat.MANIFEST_MAGIC
                    || version < CheckpointFormat.VERSION_WITHOUT_STORES || version > CheckpointFormat.VERSION) {
                throw new CheckpointCorruptedException(file + " position 0: bad manifest magic or version " + version);
            }
            long number = in.getLong();
            long mark = in.getLong();
            int nextCacheId = in.getInt();
            byte[] types = new byte[in.getInt()];
            in.get(types);
            int count = in.getInt();
            List<CacheFiles> caches = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                int id = in.getInt();
                long[] files = new long[in.getInt()];
                byte[] name = new byte[in.getShort() & 0xFFFF];
                in.get(name);
                for (int p = 0; p < files.length; p++) {
                    files[p] = in.getLong();
                }
                byte[] store = null;
                if (version != CheckpointFormat.VERSION_WITHOUT_STORES) {
                    int length = in.getInt();
                    if (length > 0) {
                        store = new byte[length];
                        in.get(store);
                    }
                }
                byte[] options = null;
                if (version >= CheckpointFormat.VERSION_WITH_OPTIONS) {
                    int length = in.getInt();
                    if (length > 0) {
                        options = new byte[length];
                        in.get(options);
                    }
                }
                caches.add(new CacheFiles(id, new String(name, StandardCharsets.UTF_8), files, store, options));
            }
            return new Manifest(number, mark, nextCacheId, types, caches);
        } catch (BufferUnderflowException | NegativeArraySizeException e) {
            throw new CheckpointCorruptedException(file + " position " + in.position() + ": the manifest ends early", e);
        }
    }

    /** Writes this manifest durably in place of the old one (temporary file, fsync, atomic rename, directory fsync). */
    void write(Path directory) throws IOException {
        int size = 44 + types.length;
        for (CacheFiles c : caches) {
            size += 18 + c.name().getBytes(StandardCharsets.UTF_8).length + 8 * c.files().length
                    + (c.store() == null ? 0 : c.store().length) + (c.options() == null ? 0 : c.options().length);
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        out.putLong(CheckpointFormat.MANIFEST_MAGIC).putInt(CheckpointFormat.VERSION).putLong(number).putLong(mark)
                .putInt(nextCacheId).putInt(types.length).put(types).putInt(caches.size());
        for (CacheFiles c : caches) {
            byte[] name = c.name().getBytes(StandardCharsets.UTF_8);
            out.putInt(c.id()).putInt(c.files().length).putShort((short) name.length).put(name);
            for (long f : c.files()) {
                out.putLong(f);
            }
            if (c.store() == null) {
                out.putInt(0);
            } else {
                out.putInt(c.store().length).put(c.store());
            }
            if (c.options() == null) {
                out.putInt(0);
            } else {
                out.putInt(c.options().length).put(c.options());
            }
        }
        out.putInt(CheckpointFormat.crc(out.array(), 0, out.position()));
        out.flip();
        Path tmp = directory.resolve(CheckpointFormat.MANIFEST_TMP);
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            while (out.hasRemaining()) {
                ch.write(out);
            }
            ch.force(true);
        }
        Files.move(tmp, directory.resolve(CheckpointFormat.MANIFEST), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
        syncDirectory(directory);
    }

    /** Makes renames and new files' directory entries durable (a no-op where directories cannot be opened). */
    public static void syncDirectory(Path directory) {
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException e) {
            // Windows cannot open a directory; its file system orders metadata itself
        }
    }
}
