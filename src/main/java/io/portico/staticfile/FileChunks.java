package io.portico.staticfile;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.stream.ChunkedInput;
import io.netty.handler.stream.ChunkedNioFile;

/**
 * A file as HttpContent chunks for ChunkedWriteHandler (TLS, where sendfile cannot be used). Unlike
 * HttpChunkedInput it does not emit the LastHttpContent: the responder writes that itself, so every response ends
 * the same way whatever sits between the ChunkedWriteHandler and the codec.
 */
final class FileChunks implements ChunkedInput<HttpContent> {
    private final ChunkedNioFile file;

    FileChunks(ChunkedNioFile file) {
        this.file = file;
    }

    @Override
    public boolean isEndOfInput() throws Exception {
        return file.isEndOfInput();
    }

    @Override
    public void close() throws Exception {
        file.close();
    }

    @Deprecated
    @Override
    public HttpContent readChunk(ChannelHandlerContext ctx) throws Exception {
        return readChunk(ctx.alloc());
    }

    @Override
    public HttpContent readChunk(ByteBufAllocator allocator) throws Exception {
        ByteBuf chunk = file.readChunk(allocator);
        return chunk == null ? null : new DefaultHttpContent(chunk);
    }

    @Override
    public long length() {
        return file.length();
    }

    @Override
    public long progress() {
        return file.progress();
    }
}
