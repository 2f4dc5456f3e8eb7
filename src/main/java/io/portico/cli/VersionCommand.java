package io.portico.cli;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.uring.IoUring;
import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code portico version}: Portico's version, the JVM and the transport it would use. */
@Command(name = "version", mixinStandardHelpOptions = true, description = "Print the version.")
final class VersionCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        for (String line : new Provider().getVersion()) {
            spec.commandLine().getOut().println(line);
        }
        spec.commandLine().getOut().flush();
        return 0;
    }

    static final class Provider implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            Properties p = new Properties();
            try (InputStream in = Main.class.getResourceAsStream("/io/portico/version.properties")) {
                if (in != null) {
                    p.load(in);
                }
            } catch (IOException e) {
                // The version lines below say "unknown".
            }
            return new String[] {
                "portico " + p.getProperty("version", "unknown"),
                "netty " + p.getProperty("netty", "unknown") + ", transports: epoll "
                        + availability(Epoll.isAvailable(), Epoll.unavailabilityCause())
                        + ", io_uring " + availability(IoUring.isAvailable(), IoUring.unavailabilityCause())
                        + ", nio yes",
                "java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"
            };
        }

        private static String availability(boolean available, Throwable cause) {
            return available ? "yes" : "no (" + (cause == null ? "unknown reason" : cause.getMessage()) + ")";
        }
    }
}
