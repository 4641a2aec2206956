package dev.lanes.internal;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks what is public only because several Lanes packages or modules share it: not an API, free to change in any
 * release. The one way Lanes marks its API: a public type or member is API unless it, its enclosing type or its package
 * carries {@code @Internal} (the {@code dev.lanes.internal} packages carry it on their {@code package-info}).
 *
 * <p>Other Lanes modules may use an internal element only where it declares them in {@link #exportedTo()}, as a
 * qualified export of a module descriptor would; the architecture tests fail on any other use, and on a public API
 * signature that mentions an internal type (see {@code docs/architecture.md}).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.FIELD, ElementType.PACKAGE})
public @interface Internal {
    /**
     * The root packages of the other Lanes modules allowed to use the element (for example {@code dev.lanes.kafka});
     * empty: lanes-core only.
     */
    String[] exportedTo() default {};
}
