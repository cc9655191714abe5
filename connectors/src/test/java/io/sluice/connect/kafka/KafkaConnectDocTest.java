package io.sluice.connect.kafka;

import io.sluice.connect.kafka.internal.ConfigDocs;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** docs/kafka-connect.md holds the config reference generated from the ConfigDef, exactly. */
class KafkaConnectDocTest {

    private static final Path PAGE = Path.of("..", "docs", "kafka-connect.md");

    @Test
    void theConfigReferenceIsGeneratedFromTheConfigDef() throws Exception {
        String page = Files.readString(PAGE);
        int begin = page.indexOf(ConfigDocs.BEGIN);
        int end = page.indexOf(ConfigDocs.END);
        assertThat(begin).as("the page has the generated section").isNotNegative();
        assertThat(end).isGreaterThan(begin);
        String generated = ConfigDocs.markdown(SluiceSinkConfig.CONFIG_DEF);
        if (Boolean.getBoolean("sluice.docs.write")) {
            page = page.substring(0, begin) + generated + page.substring(end + ConfigDocs.END.length());
            Files.writeString(PAGE, page);
            end = page.indexOf(ConfigDocs.END);
        }
        assertThat(page.substring(begin, end + ConfigDocs.END.length()))
                .as("regenerate with -Dsluice.docs.write=true -Dtest=KafkaConnectDocTest").isEqualTo(generated);
    }
}
