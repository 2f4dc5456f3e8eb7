package io.portico.bench;

import java.util.OptionalLong;

/** Where the benchmark ran: reported with the figures so runs on different machines aren't compared blindly. */
public record EnvironmentInfo(int cores, String jvm, String os, long fdLimit, int clientThreads, String transport) {

    public static EnvironmentInfo current(int clientThreads, String transport) {
        OptionalLong fd = FdLimit.soft();
        return new EnvironmentInfo(Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"),
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                        + System.getProperty("os.arch"),
                fd.orElse(-1), clientThreads, transport);
    }
}
