package io.sluice.samples.arch;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The API boundary of every module (sdk, receivers, connectors): what users touch lives in a few
 * public packages, everything else in packages with an {@code internal} segment, and no public
 * signature of the public packages mentions an internal type. The samples are users, not API.
 *
 * <p>It lives in {@code samples} because that is the one module whose test classpath holds every
 * other module's production classes (sdk, receivers, and connectors as a test dependency): one test
 * sees them all, and a new module is covered by adding it there. Test classes are not imported.
 */
@Timeout(120)
class ApiBoundaryTest {

    /** The packages users touch. */
    static final Set<String> PUBLIC_PACKAGES = new TreeSet<>(Set.of("io.sluice", "io.sluice.binary", "io.sluice.node",
            "io.sluice.client", "io.sluice.cachestore.jdbc", "io.sluice.connect.kafka"));

    private static final JavaClasses SLUICE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(location -> !location.contains("/io/sluice/samples/"))
            .importPackages("io.sluice");

    static final DescribedPredicate<JavaClass> INTERNAL =
            DescribedPredicate.describe("internal", c -> isInternal(c.getPackageName()));

    static boolean isInternal(String packageName) {
        return ("." + packageName + ".").contains(".internal.");
    }

    @Test
    void theModulesAreImported() {
        assertThat(SLUICE.stream().map(JavaClass::getPackageName))
                .contains("io.sluice", "io.sluice.node", "io.sluice.pagestore.internal", "io.sluice.binary.internal");
    }

    @Test
    void everyClassIsInAPublicPackageOrAnInternalOne() {
        classes().should(new ArchCondition<>("reside in a public API package or an internal package") {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                String p = c.getPackageName();
                if (!PUBLIC_PACKAGES.contains(p) && !isInternal(p)) {
                    events.add(SimpleConditionEvent.violated(c, c.getName() + " is in package " + p
                            + ", which is neither public API " + PUBLIC_PACKAGES + " nor internal"));
                }
            }
        }).check(SLUICE);
    }

    @Test
    void publicApiSignaturesNeverMentionInternalTypes() {
        publicApiSignatures().check(SLUICE);
    }

    @Test
    void benchmarkBaselinesAreNotUsedByProductionCode() {
        noClasses().that().doNotHaveSimpleName("RowByRowBaseline")
                .should().dependOnClassesThat().haveSimpleName("RowByRowBaseline")
                .because("the row-by-row baseline exists to be measured against (samples) and tested against, not run")
                .check(SLUICE);
    }

    static ArchRule publicApiSignatures() {
        return classes().that().resideInAnyPackage(PUBLIC_PACKAGES.toArray(String[]::new)).and().arePublic()
                .should(new ArchCondition<>("expose no internal type in a public or protected signature") {
                    @Override
                    public void check(JavaClass c, ConditionEvents events) {
                        for (String problem : internalTypesExposedBy(c)) {
                            events.add(SimpleConditionEvent.violated(c, problem));
                        }
                    }
                });
    }

    /**
     * Each supertype, type parameter, and public or protected constructor, method and field of the class
     * that mentions an internal type, generic arguments and bounds included ({@code List<Internal>} too).
     */
    static List<String> internalTypesExposedBy(JavaClass c) {
        List<String> problems = new ArrayList<>();
        c.getSuperclass().ifPresent(t -> report(problems, c.getName() + " extends", t));
        c.getInterfaces().forEach(t -> report(problems, c.getName() + " implements", t));
        c.getTypeParameters().forEach(t -> report(problems, c.getName() + " type parameter", t));
        for (JavaCodeUnit unit : c.getCodeUnits()) {
            if (!visible(unit.getModifiers())) {
                continue;
            }
            unit.getTypeParameters().forEach(t -> report(problems, unit.getFullName() + " type parameter", t));
            unit.getParameterTypes().forEach(t -> report(problems, unit.getFullName() + " parameter", t));
            report(problems, unit.getFullName() + " returns", unit.getReturnType());
            unit.getExceptionTypes().forEach(t -> report(problems, unit.getFullName() + " throws", t));
        }
        for (JavaField f : c.getFields()) {
            if (visible(f.getModifiers())) {
                report(problems, f.getFullName() + " has type", f.getType());
            }
        }
        return problems;
    }

    private static void report(List<String> problems, String where, JavaType type) {
        for (JavaClass raw : type.getAllInvolvedRawTypes()) {
            JavaClass base = raw.isArray() ? raw.getBaseComponentType() : raw;
            if (INTERNAL.test(base)) {
                problems.add(where + " " + type.getName() + ", which mentions internal " + base.getName());
            }
        }
    }

    private static boolean visible(Set<JavaModifier> modifiers) {
        return modifiers.contains(JavaModifier.PUBLIC) || modifiers.contains(JavaModifier.PROTECTED);
    }
}
