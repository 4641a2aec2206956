/** The bank sample domain: accounts that open, take deposits and withdrawals, and close. */
@NullMarked
package dev.lanes.examples.bank;

import org.jspecify.annotations.NullMarked;
