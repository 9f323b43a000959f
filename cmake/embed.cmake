# cmake -DINPUT=file -DOUTPUT=file.cpp -DSYMBOL=name -P embed.cmake
# Turns a text file into `extern const std::string_view SYMBOL` so the binary
# carries the very bytes of the file (the default spec, the database schema).
file(READ "${INPUT}" content HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${content}")
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${INPUT} by cmake/embed.cmake. Do not edit.\n"
  "#include <string_view>\n"
  "namespace hpn::embedded {\n"
  "static const char data[] = {${bytes} '\\0'};\n"
  "extern const std::string_view ${SYMBOL}(data, sizeof(data) - 1);\n"
  "}\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
