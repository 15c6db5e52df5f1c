package io.switchboard.schemaregistry.internal;

import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileOptions;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Descriptors.OneofDescriptor;
import java.util.Locale;

/**
 * Writes a {@code .proto} file's text from its descriptor, the schema text a Protobuf codec registers: syntax,
 * package, the Java and Go file options, messages (nested ones, maps, oneofs, proto3 {@code optional}) and enums.
 * A file that imports others needs schema references, which the registry client does not send: it is refused.
 */
public final class ProtoText {
    private ProtoText() {}

    /**
     * {@return the text of the file the message is declared in}
     *
     * @param message the message's descriptor
     * @throws IllegalArgumentException when the file imports other files or uses editions
     */
    public static String of(Descriptor message) {
        FileDescriptor file = message.getFile();
        if (!file.getDependencies().isEmpty()) {
            throw new IllegalArgumentException("The file " + file.getName() + " of " + message.getFullName() + " imports "
                    + file.getDependencies().stream().map(FileDescriptor::getName).toList() + "; registering a schema with"
                    + " references is not supported: register the schemas in the registry yourself and build the codec"
                    + " with autoRegister(false) and schema(<the .proto text as registered>)");
        }
        String syntax = file.toProto().getSyntax();
        if (syntax.equals("editions")) {
            throw new IllegalArgumentException("The file " + file.getName() + " uses protobuf editions; give the codec "
                    + "the .proto text with schema(...)");
        }
        StringBuilder out = new StringBuilder();
        out.append("syntax = \"").append(syntax.isEmpty() ? "proto2" : syntax).append("\";\n");
        if (!file.getPackage().isEmpty()) {
            out.append("package ").append(file.getPackage()).append(";\n");
        }
        FileOptions options = file.getOptions();
        if (options.hasJavaPackage()) {
            option(out, "java_package", quoted(options.getJavaPackage()));
        }
        if (options.hasJavaOuterClassname()) {
            option(out, "java_outer_classname", quoted(options.getJavaOuterClassname()));
        }
        if (options.hasJavaMultipleFiles()) {
            option(out, "java_multiple_files", String.valueOf(options.getJavaMultipleFiles()));
        }
        if (options.hasGoPackage()) {
            option(out, "go_package", quoted(options.getGoPackage()));
        }
        boolean proto3 = syntax.equals("proto3");
        for (Descriptor type : file.getMessageTypes()) {
            out.append('\n');
            message(out, type, "", proto3);
        }
        for (EnumDescriptor type : file.getEnumTypes()) {
            out.append('\n');
            enumeration(out, type, "");
        }
        return out.toString();
    }

    private static void option(StringBuilder out, String name, String value) {
        out.append("option ").append(name).append(" = ").append(value).append(";\n");
    }

    private static void message(StringBuilder out, Descriptor type, String indent, boolean proto3) {
        out.append(indent).append("message ").append(type.getName()).append(" {\n");
        String inner = indent + "  ";
        // nested messages keep their indexes (the wire format's message indexes count them, map entries included):
        // those declared before a map's entry are written before the map field, whose entry the parser adds there
        int nextNested = 0;
        for (FieldDescriptor field : type.getFields()) {
            OneofDescriptor oneof = field.getRealContainingOneof();
            if (field.isMapField()) {
                for (; nextNested < field.getMessageType().getIndex(); nextNested++) {
                    nested(out, type.getNestedTypes().get(nextNested), inner, proto3);
                }
                nextNested++;
            }
            if (oneof == null) {
                field(out, field, inner, proto3);
            } else if (oneof.getField(0) == field) {
                out.append(inner).append("oneof ").append(oneof.getName()).append(" {\n");
                for (FieldDescriptor member : oneof.getFields()) {
                    out.append(inner).append("  ").append(typeName(member)).append(' ').append(member.getName())
                            .append(" = ").append(member.getNumber()).append(";\n");
                }
                out.append(inner).append("}\n");
            }
        }
        for (; nextNested < type.getNestedTypes().size(); nextNested++) {
            nested(out, type.getNestedTypes().get(nextNested), inner, proto3);
        }
        for (EnumDescriptor nested : type.getEnumTypes()) {
            enumeration(out, nested, inner);
        }
        out.append(indent).append("}\n");
    }

    private static void nested(StringBuilder out, Descriptor nested, String indent, boolean proto3) {
        if (!nested.getOptions().getMapEntry()) {
            message(out, nested, indent, proto3);
        }
    }

    private static void field(StringBuilder out, FieldDescriptor field, String indent, boolean proto3) {
        out.append(indent);
        if (field.isMapField()) {
            Descriptor entry = field.getMessageType();
            out.append("map<").append(typeName(entry.findFieldByNumber(1))).append(", ")
                    .append(typeName(entry.findFieldByNumber(2))).append("> ");
        } else {
            if (field.isRepeated()) {
                out.append("repeated ");
            } else if (field.isRequired()) {
                out.append("required ");
            } else if (!proto3 || field.toProto().getProto3Optional()) {
                out.append("optional ");
            }
            out.append(typeName(field)).append(' ');
        }
        out.append(field.getName()).append(" = ").append(field.getNumber());
        FieldDescriptorProto proto = field.toProto();
        if (proto.hasDefaultValue()) {
            out.append(" [default = ").append(field.getType() == FieldDescriptor.Type.STRING
                    ? quoted(proto.getDefaultValue()) : proto.getDefaultValue()).append(']');
        }
        out.append(";\n");
    }

    private static String typeName(FieldDescriptor field) {
        return switch (field.getType()) {
            case GROUP -> throw new IllegalArgumentException("Field " + field.getFullName() + " is a proto2 group, which"
                    + " this printer does not write; give the codec the .proto text with schema(...)");
            case MESSAGE -> "." + field.getMessageType().getFullName();
            case ENUM -> "." + field.getEnumType().getFullName();
            default -> field.getType().name().toLowerCase(Locale.ROOT);
        };
    }

    private static void enumeration(StringBuilder out, EnumDescriptor type, String indent) {
        out.append(indent).append("enum ").append(type.getName()).append(" {\n");
        for (EnumValueDescriptor value : type.getValues()) {
            out.append(indent).append("  ").append(value.getName()).append(" = ").append(value.getNumber()).append(";\n");
        }
        out.append(indent).append("}\n");
    }

    private static String quoted(String text) {
        return '"' + text.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }
}
