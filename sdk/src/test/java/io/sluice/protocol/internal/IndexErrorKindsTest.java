package io.sluice.protocol.internal;

import io.sluice.IndexFieldTypeConflictException;
import io.sluice.IndexNotFoundException;
import io.sluice.IndexValueTypeException;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The index errors travel as kinds 14 to 16 and come back as the exceptions the embedded node throws. */
class IndexErrorKindsTest {

    @Test
    void indexErrorsKeepTheirKindAndClassAcrossTheWire() {
        List<RuntimeException> thrown = List.of(IndexNotFoundException.of("c", List.of("f"), List.of()),
                new IndexValueTypeException("v"), new IndexFieldTypeConflictException("t"));
        List<Integer> codes = List.of(14, 15, 16);
        for (int i = 0; i < thrown.size(); i++) {
            ErrorKind kind = ErrorKind.of(thrown.get(i));
            assertThat(kind.code).isEqualTo(codes.get(i));
            RuntimeException back = ErrorKind.of(kind.code).toException(ErrorKind.messageOf(thrown.get(i)), "c");
            assertThat(back).isExactlyInstanceOf(thrown.get(i).getClass())
                    .hasMessage(thrown.get(i).getMessage());
        }
    }
}
