package io.switchboard.bench.workload;

/**
 * The published study a workload reproduces, printed beside our figures.
 *
 * @param source the study (title, year, file under {@code shared/seeds})
 * @param figure what it published, in its own words and units
 * @param conditions how its conditions differ from this run (hardware, cluster, versions)
 */
public record Study(String source, String figure, String conditions) {

    /** No study. */
    public static final Study NONE = new Study("", "", "");

    /** True when a study is named. */
    public boolean present() {
        return !source.isBlank() || !figure.isBlank();
    }
}
