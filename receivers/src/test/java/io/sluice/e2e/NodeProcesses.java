package io.sluice.e2e;

import io.sluice.server.internal.NodeProcess;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Node processes of this module's tests: from the built jar, with the test classes (custom receivers). */
final class NodeProcesses {

    private NodeProcesses() {
    }

    static NodeProcess start(String configJson, List<String> jvmArgs) {
        return start(configJson, jvmArgs, List.of());
    }

    /** A node whose java command runs under the prefix (e.g. {@code prlimit --fsize=N --}). */
    static NodeProcess start(String configJson, List<String> jvmArgs, List<String> commandPrefix) {
        Path jar = Path.of("target", "sluice-node.jar");
        List<String> args = new ArrayList<>(List.of("-Xmx512m", "-XX:+UseSerialGC"));
        args.addAll(NodeClassArchive.jvmArgs(jar, "alone",
                () -> "{\"dataRegionInitialSize\": \"16m\", \"dataRegionMaxSize\": \"64m\"}"));
        args.addAll(jvmArgs);
        return NodeProcess.start(jar, List.of(Path.of("target", "test-classes")),
                configJson, args, Path.of("target", "node-processes"), commandPrefix);
    }
}
