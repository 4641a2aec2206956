/**
 * The shipped HTTP command endpoint: {@code POST {base}/{aggregate}/{id}/{command}} over Spring MVC or WebFlux,
 * whichever the application runs on, its OpenAPI document at {@code {base}/openapi.json}, and the dispatch
 * interceptors it brings (Bean Validation, the authenticated principal). See {@link
 * dev.lanes.spring.web.LanesWebAutoConfiguration}.
 */
@NullMarked
package dev.lanes.spring.web;

import org.jspecify.annotations.NullMarked;
