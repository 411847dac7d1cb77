package dev.conclave.proto;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Descriptors.MethodDescriptor;
import com.google.protobuf.Descriptors.ServiceDescriptor;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Renders everything about a proto file that matters on the wire, and nothing that does not
 * (comments, Java options, declaration order), as sorted canonical lines.
 */
final class WireSurface {

  private WireSurface() {
  }

  static String render(FileDescriptor file) {
    List<String> lines = new ArrayList<>();
    lines.add("package " + file.getPackage());
    for (ServiceDescriptor service : file.getServices()) {
      for (MethodDescriptor m : service.getMethods()) {
        lines.add("rpc " + service.getFullName() + "/" + m.getName() + "("
          + (m.isClientStreaming() ? "stream " : "") + m.getInputType().getFullName() + ") returns ("
          + (m.isServerStreaming() ? "stream " : "") + m.getOutputType().getFullName() + ")");
      }
    }
    for (Descriptor message : file.getMessageTypes()) {
      renderMessage(message, lines);
    }
    for (EnumDescriptor e : file.getEnumTypes()) {
      renderEnum(e, lines);
    }
    lines.sort(Comparator.naturalOrder());
    return String.join("\n", lines) + "\n";
  }

  private static void renderMessage(Descriptor message, List<String> lines) {
    lines.add("message " + message.getFullName());
    for (FieldDescriptor f : message.getFields()) {
      StringBuilder line = new StringBuilder("field ").append(message.getFullName()).append('#')
        .append(String.format("%02d", f.getNumber())).append(' ').append(f.getName()).append(' ');
      if (f.isRepeated()) {
        line.append("repeated ");
      } else if (f.toProto().getProto3Optional()) {
        line.append("optional ");
      }
      line.append(typeName(f));
      if (f.getRealContainingOneof() != null) {
        line.append(" oneof=").append(f.getRealContainingOneof().getName());
      }
      lines.add(line.toString());
    }
    for (Descriptor nested : message.getNestedTypes()) {
      renderMessage(nested, lines);
    }
    for (EnumDescriptor e : message.getEnumTypes()) {
      renderEnum(e, lines);
    }
  }

  private static void renderEnum(EnumDescriptor e, List<String> lines) {
    lines.add("enum " + e.getFullName());
    for (EnumValueDescriptor v : e.getValues()) {
      lines.add("value " + e.getFullName() + "#" + String.format("%02d", v.getNumber()) + " " + v.getName());
    }
  }

  private static String typeName(FieldDescriptor f) {
    switch (f.getType()) {
      case MESSAGE:
      case GROUP:
        return f.getMessageType().getFullName();
      case ENUM:
        return f.getEnumType().getFullName();
      default:
        return f.getType().name().toLowerCase();
    }
  }
}
