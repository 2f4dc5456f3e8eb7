package io.portico.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class TypedCommandTest {

    @Test
    void plainWordsStayAsTheyAreAndTheRestIsSingleQuoted() {
        assertThat(TypedCommand.join(List.of("portico", "bench", "-c", "50", "http://127.0.0.1:8080/a?b=1")))
                .isEqualTo("portico bench -c 50 'http://127.0.0.1:8080/a?b=1'");
        assertThat(TypedCommand.quote("p99<1ms")).isEqualTo("'p99<1ms'");
        assertThat(TypedCommand.quote("ratio(rps)>=0.9")).isEqualTo("'ratio(rps)>=0.9'");
        assertThat(TypedCommand.quote("X-Note: it's")).isEqualTo("'X-Note: it'\\''s'");
        assertThat(TypedCommand.quote("")).isEqualTo("''");
        assertThat(TypedCommand.quote("$HOME")).isEqualTo("'$HOME'");
        assertThat(TypedCommand.quote("errors<0.1%")).isEqualTo("'errors<0.1%'");
        assertThat(TypedCommand.quote("/tmp/r.html")).isEqualTo("/tmp/r.html");
    }
}
