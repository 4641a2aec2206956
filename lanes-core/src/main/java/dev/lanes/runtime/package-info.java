/**
 * The runtime on top of every component: {@link dev.lanes.runtime.LanesRuntime} runs the components of one service
 * instance as one one-shot lifecycle (prepare all, start all; on stop, a quiet period, admission closed, drain, stop in
 * reverse order, under one deadline) and reports how its shutdown went. The contracts its components implement live in
 * {@link dev.lanes.lifecycle}; no component depends on this package.
 */
@NullMarked
package dev.lanes.runtime;

import org.jspecify.annotations.NullMarked;
