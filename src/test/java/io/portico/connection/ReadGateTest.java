package io.portico.connection;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

/** The read gate: a channel reads iff no reason holds it, whatever order the holders release in. */
class ReadGateTest {
    /** Counts the reads asked of the channel. */
    private static final class Reads extends ChannelOutboundHandlerAdapter {
        int count;

        @Override
        public void read(ChannelHandlerContext ctx) {
            count++;
            ctx.read();
        }
    }

    @Test
    void readsStayHeldUntilEveryHolderHasReleased() {
        Reads reads = new Reads();
        EmbeddedChannel channel = new EmbeddedChannel(reads);
        ReadGate gate = ReadGate.of(channel);
        assertThat(ReadGate.of(channel)).isSameAs(gate);

        gate.hold(ReadGate.Reason.UPSTREAM_BUSY);
        gate.hold(ReadGate.Reason.RATE_LIMIT);
        gate.hold(ReadGate.Reason.RATE_LIMIT); // twice: still one reason
        assertThat(channel.config().isAutoRead()).isFalse();
        int before = reads.count;

        gate.release(ReadGate.Reason.UPSTREAM_BUSY);
        assertThat(channel.config().isAutoRead()).as("the rate limiter still holds").isFalse();
        assertThat(gate.isHeld()).isTrue();
        assertThat(reads.count).isEqualTo(before);
        gate.release(ReadGate.Reason.PIPELINED); // never held: changes nothing
        assertThat(channel.config().isAutoRead()).isFalse();

        gate.release(ReadGate.Reason.RATE_LIMIT);
        assertThat(channel.config().isAutoRead()).isTrue();
        assertThat(gate.isHeld()).isFalse();
        assertThat(reads.count).as("a read asked when the last holder let go").isEqualTo(before + 1);
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }

    @Test
    void onDemandReadsWaitForEveryOtherHolder() {
        Reads reads = new Reads();
        EmbeddedChannel channel = new EmbeddedChannel(reads);
        ReadGate gate = ReadGate.of(channel);
        gate.hold(ReadGate.Reason.ON_DEMAND);
        gate.hold(ReadGate.Reason.PIPELINED);
        int before = reads.count;
        gate.demand();
        assertThat(reads.count).as("another stage holds reads").isEqualTo(before);
        gate.release(ReadGate.Reason.PIPELINED);
        assertThat(channel.config().isAutoRead()).as("still on demand").isFalse();
        gate.demand();
        assertThat(reads.count).isEqualTo(before + 1);

        gate.hold(ReadGate.Reason.CLOSING);
        gate.onDemandOnly(); // a protocol switch: the HTTP stages' holds go with them
        assertThat(gate.holds(ReadGate.Reason.CLOSING)).isFalse();
        gate.demand();
        assertThat(reads.count).isEqualTo(before + 2);
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }
}
