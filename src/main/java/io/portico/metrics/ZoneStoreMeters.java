package io.portico.metrics;

import io.portico.ratelimit.StoreMeters;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;

/** One shared zone's round-trip histograms, their label children resolved once when the zone is bound. */
final class ZoneStoreMeters implements StoreMeters {
    private final DistributionDataPoint roundTrip;
    private final DistributionDataPoint decision;

    ZoneStoreMeters(DistributionDataPoint roundTrip, DistributionDataPoint decision) {
        this.roundTrip = roundTrip;
        this.decision = decision;
    }

    @Override
    public void answered(long nanos) {
        roundTrip.observe(nanos / 1e9);
    }

    @Override
    public void decided(long nanos) {
        decision.observe(nanos / 1e9);
    }
}
