package dev.lanes.spring.web;

import dev.lanes.command.DispatchInterceptor;
import dev.lanes.messaging.CommandMessage;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validator;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import reactor.util.context.ContextView;

/**
 * Validates each command with Bean Validation before it is sent: a command with violations ends its send with a {@link
 * CommandValidationException} listing them, and nothing is sent or stored. Validation is in-memory work on the
 * sender's thread; the validator must be thread-safe (Jakarta's are).
 */
public final class BeanValidationInterceptor implements DispatchInterceptor {
    private final Validator validator;

    public BeanValidationInterceptor(Validator validator) {
        this.validator = Objects.requireNonNull(validator, "validator");
    }

    @Override
    public CommandMessage intercept(CommandMessage command, ContextView context) {
        Set<ConstraintViolation<Object>> violations = validator.validate(command.command());
        if (violations.isEmpty()) {
            return command;
        }
        List<CommandValidationException.Violation> sorted = violations.stream()
                .map(violation -> new CommandValidationException.Violation(
                        violation.getPropertyPath().toString(), violation.getMessage()))
                .sorted(Comparator.comparing(CommandValidationException.Violation::path)
                        .thenComparing(CommandValidationException.Violation::message))
                .toList();
        throw new CommandValidationException(command, sorted);
    }

    @Override
    public String toString() {
        return "BeanValidationInterceptor[" + validator.getClass().getSimpleName() + "]";
    }
}
