package io.portico.upstream;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One PHP-FPM response decoded (its head as PHP 8.2 sends it, a small body and END_REQUEST in one direct buffer,
 * as a native transport reads it), over an EmbeddedChannel so sockets stay out. Run with {@code -prof gc}: the
 * bytes allocated per response are the figure (gc.alloc.rate.norm); the time is the shared machine's.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class FastCgiHeadBenchmark {
    private static final String STDOUT = "X-Powered-By: PHP/8.2.29\r\n"
            + "Content-Type: text/html; charset=UTF-8\r\n"
            + "Cache-Control: no-store, no-cache, must-revalidate\r\n"
            + "Set-Cookie: PHPSESSID=0123456789abcdef; path=/\r\n"
            + "Vary: Accept-Encoding\r\n"
            + "Content-Length: 13\r\n\r\nHello, world!";

    ArrayDeque<HttpMethod> methods;
    EmbeddedChannel channel;
    ByteBuf response;

    @Setup(Level.Trial)
    public void setup() {
        methods = new ArrayDeque<>();
        channel = new EmbeddedChannel(new FastCgiDecoder(methods, 8192, 100, null));
        byte[] stdout = STDOUT.getBytes(StandardCharsets.ISO_8859_1);
        ByteBuf heap = Unpooled.buffer();
        FastCgiRecords.header(heap, FastCgiRecords.STDOUT, stdout.length);
        heap.writeBytes(stdout);
        FastCgiRecords.header(heap, FastCgiRecords.END_REQUEST, 8);
        heap.writeInt(0).writeByte(0).writeZero(3);
        response = Unpooled.directBuffer(heap.readableBytes()).writeBytes(heap);
        heap.release();
    }

    @Benchmark
    public int decode() {
        methods.add(HttpMethod.GET);
        channel.writeInbound(response.retainedDuplicate());
        int messages = 0;
        for (Object m; (m = channel.readInbound()) != null; ) {
            messages++;
            ReferenceCountUtil.release(m);
        }
        return messages;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        channel.finishAndReleaseAll();
        response.release();
    }
}
