package dev.lanes.architecture;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaMember;
import dev.lanes.internal.Internal;
import java.util.Optional;

/**
 * What {@link Internal} marks, as ArchUnit predicates: a type is internal when it, a type enclosing it or its package
 * carries the annotation; a member when it carries it or its type is internal.
 */
public final class InternalElements {
    /** Internal types. */
    public static final DescribedPredicate<JavaClass> TYPE =
            DescribedPredicate.describe("an @Internal type", InternalElements::isInternal);

    /** Internal methods and constructors, or those of internal types. */
    public static final DescribedPredicate<JavaCodeUnit> CODE_UNIT =
            DescribedPredicate.describe("@Internal", InternalElements::isInternal);

    private InternalElements() {}

    /** The annotation on the type, an enclosing type or the package, if any. */
    public static Optional<Internal> marking(JavaClass type) {
        for (Optional<JavaClass> current = Optional.of(type);
                current.isPresent();
                current = current.get().getEnclosingClass()) {
            if (current.get().isAnnotatedWith(Internal.class)) {
                return Optional.of(current.get().getAnnotationOfType(Internal.class));
            }
        }
        return type.getPackage().tryGetAnnotationOfType(Internal.class);
    }

    /** The annotation on the member, else {@link #marking(JavaClass) its type's}. */
    public static Optional<Internal> marking(JavaMember member) {
        return member.isAnnotatedWith(Internal.class)
                ? Optional.of(member.getAnnotationOfType(Internal.class))
                : marking(member.getOwner());
    }

    static boolean isInternal(JavaClass type) {
        return marking(type).isPresent();
    }

    static boolean isInternal(JavaMember member) {
        return marking(member).isPresent();
    }
}
