package io.switchboard.schemaregistry.avro;

import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecordBase;

/** A SpecificRecord class written out by hand the way avro-tools generates one (SCHEMA$, get, put), for the tests. */
public class Shipment extends SpecificRecordBase {
    /** The class's schema, read by SpecificData. */
    public static final Schema SCHEMA$ = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Shipment\","
            + "\"namespace\":\"io.switchboard.schemaregistry.avro\",\"fields\":["
            + "{\"name\":\"id\",\"type\":\"string\"},{\"name\":\"parcels\",\"type\":\"int\"}]}");

    private CharSequence id;
    private int parcels;

    /** For Avro's reader. */
    public Shipment() {}

    Shipment(String id, int parcels) {
        this.id = id;
        this.parcels = parcels;
    }

    String id() {
        return id == null ? null : id.toString();
    }

    int parcels() {
        return parcels;
    }

    @Override
    public Schema getSchema() {
        return SCHEMA$;
    }

    @Override
    public Object get(int field) {
        return switch (field) {
            case 0 -> id;
            case 1 -> parcels;
            default -> throw new IndexOutOfBoundsException(field);
        };
    }

    @Override
    public void put(int field, Object value) {
        switch (field) {
            case 0 -> id = (CharSequence) value;
            case 1 -> parcels = (Integer) value;
            default -> throw new IndexOutOfBoundsException(field);
        }
    }
}
