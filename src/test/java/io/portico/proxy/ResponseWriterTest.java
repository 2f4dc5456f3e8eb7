package io.portico.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The buffered response's memory: the budget in flight to the client, and the spill's unwritten backlog. */
class ResponseWriterTest {
    private static final int PIECE = 64 * 1024;

    /** A file executor that runs nothing until told: the disk is as slow as the test wants. */
    private static final class HeldDisk implements Executor {
        final ArrayDeque<Runnable> tasks = new ArrayDeque<>();

        @Override
        public synchronized void execute(Runnable r) {
            tasks.add(r);
        }

        void catchUp(EmbeddedChannel loop) {
            for (Runnable r; (r = poll()) != null; ) {
                r.run();
                loop.runPendingTasks();
            }
        }

        private synchronized Runnable poll() {
            return tasks.poll();
        }
    }

    /** A client that takes nothing: writes stay pending (released when the channel closes). */
    private static final class StalledClient extends ChannelOutboundHandlerAdapter {
        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            ReferenceCountUtil.release(msg);
        }
    }

    @Test
    void theUpstreamWaitsWhileMoreThanTheWriteBacklogIsNotYetOnDisk() {
        EmbeddedChannel client = new EmbeddedChannel(new StalledClient());
        HeldDisk disk = new HeldDisk();
        AtomicInteger drained = new AtomicInteger();
        ResponseWriter writer = new ResponseWriter(client, PIECE, disk) {
            @Override
            void drained() {
                drained.incrementAndGet();
            }

            @Override
            void writeFailed(String note) {
                throw new AssertionError(note);
            }

            @Override
            void completing() {}
        };
        writer.write(new DefaultHttpContent(Unpooled.wrappedBuffer(new byte[PIECE]))); // the memory budget, in flight
        // The budget is used up, and the upstream is still read: what comes next goes to the spill file. (It used
        // to stop here and rely on the read batch carrying on; at the end of a batch it never read again.)
        assertThat(writer.room()).isTrue();
        int pieces = 0;
        // Past the budget the bytes go to the spill file, and reading goes on...
        while (writer.room()) {
            writer.write(new DefaultHttpContent(Unpooled.wrappedBuffer(new byte[PIECE])));
            pieces++;
        }
        // ...until the parked bytes not yet on disk reach the backlog, not at the 1 GiB the file may hold.
        assertThat((long) pieces * PIECE).isEqualTo(ResponseSpill.WRITE_BACKLOG);
        disk.catchUp(client);
        assertThat(writer.room()).isTrue();
        assertThat(drained.get()).as("the exchange is told it may read again").isPositive();
        writer.release();
        disk.catchUp(client);
        client.close();
        assertThat(client.finishAndReleaseAll()).isFalse();
    }
}
