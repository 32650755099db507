set(DISTSIM_IO_OUTPUT_SOURCES output/summary_writer.cpp output/trace_writer.cpp output/events_writer.cpp output/search_writer.cpp output/validation_writer.cpp)
