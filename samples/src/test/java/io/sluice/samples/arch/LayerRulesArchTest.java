package io.sluice.samples.arch;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The layers of Sluice and no cycles between its packages. From the bottom: the SDK (what a client links), the
 * page store (pages, free list, trees, the region), the log and checkpoints over it, then the node (receivers,
 * processors, cache stores, server, {@code SluiceNode}). Beside the node, the cluster's coordination on Helix
 * ({@code io.sluice.cluster}) sees the SDK alone, and neither the SDK nor the page store sees it (the node, which
 * joins a cluster, does). A layer sees the ones below it, never one above; and no
 * two packages depend on each other, directly or around a loop, so each can be read, tested and moved (the
 * cluster builds on the node) on its own.
 *
 * <p>In {@code samples} for the reason {@link ApiBoundaryTest} gives: its test class path holds every module's
 * production classes. Test classes are not imported.
 */
@Timeout(120)
class LayerRulesArchTest {

    private static final JavaClasses SLUICE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(location -> !location.contains("/io/sluice/samples/"))
            .importPackages("io.sluice");

    /** The SDK's packages: what a client application links (module sluice-sdk). */
    static final String[] SDK = {"io.sluice", "io.sluice.binary..", "io.sluice.client..", "io.sluice.streamer..",
            "io.sluice.protocol..", "io.sluice.affinity.."};
    /** The node and what runs in it above the page store and the log. */
    static final String[] NODE = {"io.sluice.node..", "io.sluice.receiver..", "io.sluice.processor..",
            "io.sluice.cachestore..", "io.sluice.server.."};
    /** The page store's core: the region, pages, free list and trees, below the log and checkpoints. */
    static final String[] PAGE_STORE_CORE = {"io.sluice.pagestore.internal", "io.sluice.pagestore.internal.page..",
            "io.sluice.pagestore.internal.freelist..", "io.sluice.pagestore.internal.tree.."};
    /** The cluster's coordination on Helix and ZooKeeper (module sluice-cluster). */
    static final String[] CLUSTER = {"io.sluice.cluster.."};
    /** The log and checkpoints, which sit on the page store. */
    static final String[] LOG = {"io.sluice.pagestore.internal.wal..", "io.sluice.pagestore.internal.checkpoint.."};

    @Test
    void theRulesSeeEveryLayer() {
        assertThat(SLUICE.stream().map(c -> c.getPackageName())).contains("io.sluice", "io.sluice.client.internal",
                "io.sluice.node", "io.sluice.node.internal", "io.sluice.pagestore.internal.page",
                "io.sluice.pagestore.internal.wal", "io.sluice.cachestore.jdbc", "io.sluice.server.internal",
                "io.sluice.cluster.internal");
    }

    @Test
    void noCyclesBetweenPackages() {
        noPackageCycles().check(SLUICE);
    }

    @Test
    void thePageStoreSeesNothingOfTheNodeCacheStoresOrServer() {
        pageStoreBelowTheNode().check(SLUICE);
    }

    @Test
    void thePageStoreSeesNothingOfTheLogAboveIt() {
        pageStoreBelowTheLog().check(SLUICE);
    }

    @Test
    void theSdkSeesNothingOfTheNode() {
        sdkBelowTheNode().check(SLUICE);
    }

    @Test
    void theClusterSeesTheSdkOnly() {
        clusterOnTheSdk().check(SLUICE);
    }

    @Test
    void neitherTheSdkNorThePageStoreSeesTheCluster() {
        clusterAboveSdkAndPageStore().check(SLUICE);
    }

    /** Every package its own slice ({@code io.sluice.node} and {@code io.sluice.node.internal} are two). */
    static ArchRule noPackageCycles() {
        return slices().matching("io.sluice.(**)").namingSlices("$1").should().beFreeOfCycles()
                .because("a cycle makes two packages one: neither can be read, tested or moved without the other");
    }

    static ArchRule pageStoreBelowTheNode() {
        return noClasses().that().resideInAPackage("io.sluice.pagestore.internal..")
                .should().dependOnClassesThat().resideInAnyPackage(NODE)
                .because("the page store and its log are a storage engine the node uses, not the other way round");
    }

    static ArchRule pageStoreBelowTheLog() {
        return noClasses().that().resideInAnyPackage(PAGE_STORE_CORE)
                .should().dependOnClassesThat().resideInAnyPackage(LOG)
                .because("the log and checkpoints are built on the page store; it reaches them only through"
                        + " interfaces of its own (StoreJournal)");
    }

    static ArchRule sdkBelowTheNode() {
        return noClasses().that().resideInAnyPackage(SDK)
                .should().dependOnClassesThat().resideInAnyPackage(concat(NODE,
                        new String[]{"io.sluice.pagestore.internal..", "io.sluice.connect.."}))
                .because("a client application links the SDK alone; the node and the connector are built on it");
    }

    static ArchRule clusterOnTheSdk() {
        return classes().that().resideInAnyPackage(CLUSTER)
                .should().onlyDependOnClassesThat(resideInAnyPackage(concat(SDK, CLUSTER))
                        .or(resideOutsideOfPackage("io.sluice..")))
                .because("the cluster's coordination is Helix glue over the SDK's map and affinity; the node uses it"
                        + " through interfaces (PartitionRoles, ClusterMembership), never the other way round");
    }

    static ArchRule clusterAboveSdkAndPageStore() {
        return noClasses().that().resideInAnyPackage(concat(SDK, new String[]{"io.sluice.pagestore.internal.."}))
                .should().dependOnClassesThat().resideInAnyPackage(CLUSTER)
                .because("a client and an embedded standalone node run without Helix and ZooKeeper on the class path");
    }

    private static String[] concat(String[] a, String[] b) {
        String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
