package io.portico.hardening;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One {@link ProxiedPortico} for a whole test class: started before the first case, stopped after the last, and
 * its recording upstream reset before each case so every case counts only its own bytes.
 */
final class SharedPortico implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback {
    private ProxiedPortico portico;

    ProxiedPortico get() {
        return portico;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        portico = ProxiedPortico.start();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        portico.upstream.reset();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        portico.close();
    }
}
