package dev.lanes.spring.web;

/**
 * The name a command type has in the endpoint's paths and OpenAPI document: {@link #SIMPLE_NAME} unless the
 * application declares a bean of this type. Names must be unique within an aggregate; the start fails naming both
 * classes otherwise. Called once per registered command type, when the endpoint is created.
 */
@FunctionalInterface
public interface CommandNaming {
    /** The class's simple name: {@code Deposit} for {@code AccountCommand.Deposit}. */
    CommandNaming SIMPLE_NAME = Class::getSimpleName;

    String name(Class<?> commandType);
}
