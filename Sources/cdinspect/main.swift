import Foundation

CDInspect.start(ArgumentOrder.normalized(Array(CommandLine.arguments.dropFirst())))
