package io.switchboard.testkit.rocketmq;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The info logs RocksDB writes for a broker store outside of it.
 *
 * <p>RocketMQ 5.5.0 opens RocksDB with its log directory fixed to {@code logs/rocketmqlogs} under
 * the first writable of {@code user.home}, {@code java.io.tmpdir} and {@code /data} (no setting
 * moves it), naming the files after the store path. This removes those files when the store goes,
 * and the directories too when they were created for it.
 */
final class RocksDbInfoLogs {

    private final Path directory;
    private final String filePrefix;
    private final List<Path> createdDirectories;

    private RocksDbInfoLogs(Path directory, String filePrefix, List<Path> createdDirectories) {
        this.directory = directory;
        this.filePrefix = filePrefix;
        this.createdDirectories = createdDirectories;
    }

    /** Notes, before the broker starts, which directories exist already. */
    static RocksDbInfoLogs forStore(Path storeRoot) {
        Path base = Stream.of(System.getProperty("user.home"), System.getProperty("java.io.tmpdir"), "/data")
                .filter(dir -> dir != null && !dir.isEmpty())
                .map(Path::of)
                .filter(dir -> Files.isDirectory(dir) && Files.isWritable(dir))
                .findFirst()
                .orElse(null);
        if (base == null) {
            return new RocksDbInfoLogs(null, "", List.of());
        }
        Path logs = base.resolve("logs");
        Path directory = logs.resolve("rocketmqlogs");
        List<Path> created = new ArrayList<>();
        if (!Files.exists(directory)) {
            created.add(directory);
        }
        if (!Files.exists(logs)) {
            created.add(logs);
        }
        String absolute = storeRoot.toAbsolutePath().toString();
        String prefix = absolute.substring(absolute.startsWith("/") ? 1 : 0).replace('/', '_') + "_";
        return new RocksDbInfoLogs(directory, prefix, created);
    }

    /** Deletes this store's info logs, then the directories made for them if they are empty. */
    void delete() throws IOException {
        if (directory == null || !Files.isDirectory(directory)) {
            return;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, filePrefix + "*")) {
            for (Path file : files) {
                Files.deleteIfExists(file);
            }
        }
        for (Path created : createdDirectories) {
            try (Stream<Path> entries = Files.list(created)) {
                if (entries.findAny().isPresent()) {
                    return;
                }
            }
            Files.deleteIfExists(created);
        }
    }
}
