# The op families and which library each of their files belongs to.
#
# templates/families.def names the families (one line each); a family folder
# holds files of several layers, and a file's name says which library
# compiles it. tests/structure/check_includes.py reads the table below to
# hold each file to its layer's include rules, so the two cannot disagree.

# MXFORGE_FAMILIES: the folders under templates/, in families.def's order.
file(STRINGS ${PROJECT_SOURCE_DIR}/templates/families.def mxforge_family_lines
     REGEX "^MXF_FAMILY\\(")
set(MXFORGE_FAMILIES)
foreach(line IN LISTS mxforge_family_lines)
  string(REGEX REPLACE "^MXF_FAMILY\\([A-Za-z0-9]+, *([a-z0-9_]+)\\).*" "\\1" folder "${line}")
  list(APPEND MXFORGE_FAMILIES ${folder})
endforeach()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${PROJECT_SOURCE_DIR}/templates/families.def)

# file name = layer (the library mxforge_<layer>); every other .cpp of a
# family folder is MLIR code of mxforge_templates.
set(MXFORGE_FAMILY_FILE_LAYERS
  "op_spec.cpp=spec"           # the op's name, keys and rules (spec/op_declaration.h)
  "op_abi.cpp=abi"             # its operands (abi/op_abi.h)
  "op_reference.cpp=arrays"    # its CPU reference run (arrays/op_reference.h)
  "rules.cpp=tiling"           # its tiling rules (templates/family_rules.h)
  "tiling.cpp=tiling"
)

# Adds each family's files named for `layer` that exist to `target`.
function(mxforge_add_family_sources target layer)
  foreach(family IN LISTS MXFORGE_FAMILIES)
    foreach(entry IN LISTS MXFORGE_FAMILY_FILE_LAYERS)
      string(REPLACE "=" ";" pair "${entry}")
      list(GET pair 0 file)
      list(GET pair 1 file_layer)
      set(path ${PROJECT_SOURCE_DIR}/templates/${family}/${file})
      if(file_layer STREQUAL layer AND EXISTS ${path})
        target_sources(${target} PRIVATE ${path})
      endif()
    endforeach()
  endforeach()
endfunction()

# The MLIR builders: every other .cpp of each family folder.
function(mxforge_add_family_template_sources target)
  set(layer_files)
  foreach(entry IN LISTS MXFORGE_FAMILY_FILE_LAYERS)
    string(REPLACE "=" ";" pair "${entry}")
    list(GET pair 0 file)
    list(APPEND layer_files ${file})
  endforeach()
  foreach(family IN LISTS MXFORGE_FAMILIES)
    file(GLOB sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/templates/${family}/*.cpp)
    foreach(path IN LISTS sources)
      get_filename_component(name ${path} NAME)
      if(NOT name IN_LIST layer_files)
        target_sources(${target} PRIVATE ${path})
      endif()
    endforeach()
  endforeach()
endfunction()
