package io.portico.compress;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.config.CompressionConfig;
import io.portico.config.CompressionConfig.Coding;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The codings a location offers are worked out once per list of codings, not for every response. */
class OfferTest {
    private static CompressionConfig config(List<Coding> codings) {
        return new CompressionConfig(true, codings, Set.of("text/plain"), 0, 5, 4, 3);
    }

    @Test
    void twoLocationsWithTheSameCodingsShareOneOffer() {
        ResponseCompression.Offer a = ResponseCompression.offered(config(List.of(Coding.GZIP, Coding.ZSTD)));
        ResponseCompression.Offer b = ResponseCompression.offered(config(List.of(Coding.GZIP, Coding.ZSTD)));
        assertThat(a).isSameAs(b);
        assertThat(ResponseCompression.offered(config(List.of(Coding.ZSTD, Coding.GZIP)))).isNotSameAs(a);
    }

    @Test
    void theOfferKeepsTheConfiguredOrderAndTheTokensMatchTheCodings() {
        ResponseCompression.Offer offer = ResponseCompression.offered(config(List.of(Coding.GZIP, Coding.BR)));
        assertThat(offer.tokens()).hasSameSizeAs(offer.codings().toArray());
        for (int i = 0; i < offer.tokens().length; i++) {
            assertThat(offer.tokens()[i]).isEqualTo(offer.codings().get(i).token);
        }
        assertThat(offer.codings()).contains(Coding.GZIP); // the JDK's gzip always loads
        assertThat(offer.codings().indexOf(Coding.GZIP)).isZero();
        assertThat(AcceptEncoding.choose("br;q=0.5, gzip", offer)).isEqualTo(Coding.GZIP);
        assertThat(AcceptEncoding.choose(null, offer)).isNull();
    }
}
