package io.switchboard.spi;

import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/** A broker's rule for destination names. */
@FunctionalInterface
public interface DestinationNameRule {

    /**
     * Checks a name.
     *
     * @param name the destination name
     * @return empty when the name is legal, else a sentence stating the rule it breaks
     */
    Optional<String> violation(String name);

    /**
     * {@return a rule made of a character pattern, a maximum length and reserved names or prefixes}
     *
     * @param allowed the characters allowed, as a regex over the whole name, e.g. {@code [a-zA-Z0-9._-]+}
     * @param maxLength the maximum length in characters
     * @param description the rule in words, used in error messages
     * @param reserved names that are not allowed
     * @param reservedPrefixes prefixes that are not allowed
     */
    static DestinationNameRule of(
            String allowed, int maxLength, String description, Set<String> reserved, Set<String> reservedPrefixes) {
        Pattern pattern = Pattern.compile(allowed);
        return name -> {
            if (name == null || name.isEmpty()) {
                return Optional.of("a destination name must not be empty (" + description + ")");
            }
            if (name.length() > maxLength) {
                return Optional.of("it has " + name.length() + " characters but at most " + maxLength + " are allowed");
            }
            if (!pattern.matcher(name).matches()) {
                return Optional.of("it must match " + description);
            }
            if (reserved.contains(name)) {
                return Optional.of("'" + name + "' is a reserved name");
            }
            for (String prefix : reservedPrefixes) {
                if (name.startsWith(prefix)) {
                    return Optional.of("the prefix '" + prefix + "' is reserved by the broker");
                }
            }
            return Optional.empty();
        };
    }
}
