/** Implementation of the schema-registry module; not part of the public API and may change without notice. */
package io.switchboard.schemaregistry.internal;
