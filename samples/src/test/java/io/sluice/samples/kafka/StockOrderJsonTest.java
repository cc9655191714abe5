package io.sluice.samples.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.samples.StockOrder;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class StockOrderJsonTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theJsonHoldsTheOrderOfTheKeyWithAndWithoutTheSchemaEnvelope() throws Exception {
        for (long key : new long[] {0, 1, 7, 12_345, 1_999_999}) {
            StockOrder o = StockOrder.forKey(key);
            JsonNode plain = JSON.readTree(StockOrderJson.schemaless(key));
            JsonNode enveloped = JSON.readTree(StockOrderJson.withSchema(key));
            assertThat(enveloped.get("payload")).isEqualTo(plain);
            assertThat(enveloped.get("schema").get("fields")).hasSize(11);
            assertThat(plain.get("price").asDouble()).isEqualTo(o.price());
            assertThat(plain.get("quantity").asLong()).isEqualTo(o.quantity());
            assertThat(plain.get("user").asText()).isEqualTo(o.user());
            assertThat(plain.get("commission").asDouble()).isEqualTo(o.commission());
            assertThat(plain.get("marketMaker").asBoolean()).isEqualTo(o.marketMaker());
            assertThat(plain.size()).isEqualTo(11);
        }
    }
}
