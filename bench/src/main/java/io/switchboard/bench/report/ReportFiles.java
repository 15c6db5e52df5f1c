package io.switchboard.bench.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.switchboard.bench.run.RunResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** Writes {@code results.csv}, {@code results.json} and {@code report.html} into a directory. */
public final class ReportFiles {

    private ReportFiles() {}

    /**
     * Writes the three files.
     *
     * @param command the command line that produced the results, recorded in the files
     */
    public static void write(Path dir, List<RunResult> results, String command) {
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve("results.csv"), CsvReport.render(results), StandardCharsets.UTF_8);
            Map<String, Object> document = JsonReport.document(results, command);
            ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
            Files.writeString(dir.resolve("results.json"), mapper.writeValueAsString(document), StandardCharsets.UTF_8);
            Files.writeString(dir.resolve("report.html"), HtmlReport.render(new ObjectMapper().writeValueAsString(document)),
                    StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the reports to " + dir + ": " + e.getMessage()
                    + "; choose a writable directory with --out", e);
        }
    }
}
