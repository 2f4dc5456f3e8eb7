package io.portico.exchange;

import io.portico.config.LocationConfig;

/** A location as the router matched it: its config and the responder that answers it. */
public record Route(LocationConfig location, Responder responder) {}
