package io.portico.testing;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.lang.reflect.Proxy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionContext;

class LeakReportExtensionTest {

    @Test
    void aLeakedBufferFailsTheClass() {
        leakOne();
        ExtensionContext context = (ExtensionContext) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {ExtensionContext.class},
                (proxy, method, args) -> method.getName().equals("getDisplayName") ? "leak probe" : null);
        assertThatThrownBy(() -> new LeakReportExtension().afterAll(context))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("leak");
    }

    private static void leakOne() {
        ByteBuf leaked = UnpooledByteBufAllocator.DEFAULT.directBuffer(64);
        leaked.writeLong(42);
        // Dropped without release on purpose.
    }
}
